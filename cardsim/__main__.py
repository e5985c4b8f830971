from cardsim.cli import main

main()
